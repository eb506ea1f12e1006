exports.activate = async function (ctx) {
  return { tools: { hello: () => 'cjs-activate' } };
};
