module.exports = function activate(ctx) {
  return { tools: { hello: () => 'cjs-fn:' + typeof require } };
};
