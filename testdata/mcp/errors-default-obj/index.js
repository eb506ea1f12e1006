// activate returns nothing: the apps read no instance from the default
// export, so the tool has no handler.
export default {
  activate() {},
  tools: { hello: () => 'hello' },
};
