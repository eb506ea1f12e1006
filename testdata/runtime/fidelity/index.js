async function attempt(f) {
  try {
    const v = await f();
    return v === undefined ? 'undefined' : v;
  } catch (e) {
    return `threw: ${e.message}`;
  }
}

export function activate() {
  return {
    tools: {
      settings: async ({ settings }) => {
        const out = {};
        out.set = await attempt(() => settings.set('zeta', 'z'));
        out.setAll = Object.keys(await settings.setAll({ 2: true, 10: 5 }));
        out.setUndefined = await attempt(() => settings.set('greeting', undefined));
        out.setAllUndefined = await attempt(() => settings.setAll({ 10: 1, greeting: undefined }));
        out.setNull = Object.keys(await attempt(() => settings.setAll({ greeting: null })));
        out.getAll = Object.keys(await settings.getAll());
        return JSON.stringify(out);
      },
      read: async ({ settings }) =>
        JSON.stringify({
          getAll: await attempt(() => settings.getAll()),
          get: await attempt(() => settings.get('alpha')),
          setOther: await attempt(() => settings.set('zeta', 'q')),
        }),
      context(ctx) {
        return JSON.stringify({ extension: Object.keys(ctx.extension), thisType: typeof this });
      },
    },
  };
}
