// Hello Tools: the smallest useful Spirit Agent extension.
export function activate(ctx) {
  ctx.log(`activated ${ctx.extension.id} ${ctx.extension.version}`);
  return {
    tools: {
      greet: ({ arguments: args }) => `Hello, ${args.name}!`,
    },
    systemPrompt: 'When the user asks to be greeted, call the greet tool with their name.',
  };
}
