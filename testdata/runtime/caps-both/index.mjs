export function activate() {
  return { tools: { hello: () => 'hi' }, systemPrompt: 'Static prompt of caps-both.' };
}
