// Each tool fails the way the apps' own tests record: the model sees the
// thrown message and nothing else.
export function activate(ctx) {
  return {
    tools: {
      throws: () => { throw new Error('tool failed: bad input'); },
      'set-type': () => ctx.settings.set('greeting', 5),
      'set-option': () => ctx.settings.set('color', 'nope'),
      'set-undeclared': () => ctx.settings.set('undeclared', 'x'),
      'clear-required': () => ctx.settings.set('greeting', null),
    },
  };
}
