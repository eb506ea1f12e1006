export default {
  activate(ctx) {
    return { tools: { hello: () => 'esm-default-obj:' + (this === undefined ? 'no-this' : 'this') } };
  },
};
