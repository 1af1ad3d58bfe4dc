// A CPU-team helper (app/src/cpu_team): a Web Worker holding one replica of the model. Its first
// message carries the app's compiled wasm module and the URL of its JavaScript glue; every message
// after goes to the wasm export `cpu_team_helper`, and its reply's gradient is transferred back,
// not copied.
let helper = null;
self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.kind === 'init') {
      const glue = await import(message.glue);
      await glue.default({ module_or_path: message.module });
      helper = glue.cpu_team_helper;
    }
    const reply = await helper(message);
    self.postMessage(reply, reply.grads ? [reply.grads.buffer] : []);
  } catch (error) {
    self.postMessage({ error: String(error && error.message ? error.message : error) });
  }
};
