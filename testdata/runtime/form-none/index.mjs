export const notActivate = 1;
