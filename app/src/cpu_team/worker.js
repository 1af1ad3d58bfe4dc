// A CPU-team helper (app/src/cpu_team): a Web Worker holding one replica of the model. Its first
// message carries the app's compiled wasm module and the URL of its JavaScript glue; every message
// after goes to the wasm export `cpu_team_helper`, and its reply's gradient is transferred back,
// not copied. Where the first message also carries a shared buffer (a cross-origin isolated
// page, cpu_team/shared.rs), the shares come through that buffer instead and `serve` answers them.
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
    if (message.kind === 'init' && message.shared) {
      await (message.hidden ? serveHidden(message.shared) : serve(message.shared));
    }
  } catch (error) {
    self.postMessage({ error: why(error) });
  }
};

// An error's message, for the leader.
function why(error) {
  return String(error && error.message ? error.message : error);
}

// Control words of the shared buffer (cpu_team/shared.rs): the leader's share counter, the last
// share done, whether it failed, the run's step number.
const GO = 0, DONE = 1, FAILED = 2, STEP = 3;
// How long to spin on GO before sleeping in Atomics.wait: the leader posts the next share within
// a fraction of a millisecond of reading this one, and waking from a wait takes longer than that.
const SPIN_MS = 2;

// The shared buffer's parts (cpu_team/shared.rs): control words, loss and accuracy, the values
// (weights, gradient or logits), the rows.
function views({ buffer, params, rows }) {
  return {
    control: new Int32Array(buffer, 0, 8),
    result: new Float32Array(buffer, 32, 2),
    values: new Float32Array(buffer, 64, params),
    rows: new Uint32Array(buffer, 64 + 4 * params, rows),
  };
}

// Waits for GO to move past `seen` (spinning, then asleep) and answers its new value.
function nextShare(control, seen) {
  const end = performance.now() + SPIN_MS;
  while (Atomics.load(control, GO) === seen && performance.now() < end) { /* spin */ }
  Atomics.wait(control, GO, seen);
  return Atomics.load(control, GO);
}

// Answers shares from the shared buffer until the worker is terminated: wait for GO to move, run
// the share (the weights in, the gradient back in the same place), store the result, then DONE.
async function serve(shared) {
  const { control, result, values, rows: share } = views(shared);
  let seen = 0;
  for (;;) {
    seen = nextShare(control, seen);
    try {
      const reply = await helper({ kind: 'step', params: values, rows: share, step: Atomics.load(control, STEP) >>> 0 });
      result[0] = reply.loss;
      result[1] = reply.accuracy;
      Atomics.store(control, FAILED, 0);
    } catch (error) {
      Atomics.store(control, FAILED, 1);
      self.postMessage({ error: why(error) });
    }
    Atomics.store(control, DONE, seen);
  }
}

// Control words and operations of a team split by hidden units (cpu_team/hidden.rs): PART, the
// helper's part of the logits is in the buffer; SUM, the leader's sum of the parts is; OP, what
// GO asks for.
const PART = 4, SUM = 5, OP = 6;
const OP_STEP = 1, OP_WEIGHTS_OUT = 2;

// Spins until control word `slot` holds `value`, then sleeps on it.
function until(control, slot, value) {
  const end = performance.now() + SPIN_MS;
  while (Atomics.load(control, slot) !== value && performance.now() < end) { /* spin */ }
  for (let now = Atomics.load(control, slot); now !== value; now = Atomics.load(control, slot)) {
    Atomics.wait(control, slot, now);
  }
}

// Answers a team split by hidden units: each GO is a step in two phases (this shard's part of
// the logits out, then, once the leader has added the parts, the loss, backward and update), or
// this shard's weights out of or into the buffer.
async function serveHidden(shared) {
  const { control, result, values, rows: batch } = views(shared);
  let seen = 0;
  for (;;) {
    seen = nextShare(control, seen);
    const step = Atomics.load(control, STEP) >>> 0;
    try {
      const op = Atomics.load(control, OP);
      if (op === OP_STEP) {
        // The part goes straight into the shared buffer, and the sum comes from it.
        const count = await helper({ kind: 'outputs', rows: batch, values, step });
        Atomics.store(control, PART, seen);
        until(control, SUM, seen);
        const reply = await helper({ kind: 'finish', values, count, step });
        result[0] = reply.loss;
        result[1] = reply.accuracy;
      } else if (op === OP_WEIGHTS_OUT) {
        values.set(await helper({ kind: 'weights-out' }));
      } else {
        await helper({ kind: 'weights-in', params: values });
      }
      Atomics.store(control, FAILED, 0);
    } catch (error) {
      Atomics.store(control, FAILED, 1);
      self.postMessage({ error: why(error) });
    }
    Atomics.store(control, DONE, seen);
  }
}
