export function activate(ctx) {
  return {
    systemPrompt: "Use lookup_item to find catalogue items by id.",
    tools: {
      lookup_item: async ({ arguments: args }) => ({ title: `Item ${args.id}` }),
      delete_item: async ({ arguments: args }) => `deleted ${args.id}`,
    },
  };
}
