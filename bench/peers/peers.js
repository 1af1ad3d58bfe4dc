// W1 and W2 (see the README) in TensorFlow.js, ConvNetJS and jax-js, and T1 (the attention lab's
// transformer) in jax-js, measured like the lab's /bench page. W1 and W2:
// the same 156 batches of 64 of the first 10,000 MNIST images in file order, pixels u8/255, plain
// SGD, samples/s over every step but the first. Each step's loss stays on the device until the end
// (one readback), as in the lab. With `init=FILE` (a `lab export-step --workload W` file) every
// library starts from the lab's own initial weights, so the loss curves can be compared step by step.
const BATCH = 64;
const TRAIN = 10000;

const query = new URLSearchParams(location.search);
const lib = query.get('lib') || 'tfjs';
const backend = query.get('backend') || 'webgl';
const workload = query.get('workload') || 'W1';
const steps = Math.min(Number(query.get('steps')) || Math.floor(TRAIN / BATCH), Math.floor(TRAIN / BATCH));
const lr = workload === 'W1' ? 0.1 : 0.05;

// The lab's compact image format: "LABIMG01", count, rows, cols, classes (u32 LE), labels, pixels.
async function mnist() {
  const buf = await (await fetch('../data/mnist-train.bin')).arrayBuffer();
  const head = new DataView(buf);
  const count = head.getUint32(8, true);
  const size = head.getUint32(12, true) * head.getUint32(16, true);
  const n = Math.min(count, TRAIN);
  const labels = new Uint8Array(buf, 24, n);
  const bytes = new Uint8Array(buf, 24 + count, n * size);
  const pixels = new Float32Array(n * size);
  for (let i = 0; i < pixels.length; i++) pixels[i] = bytes[i] / 255;
  return { pixels, labels, size };
}

// The lab's initial weights, layer by layer ({ w, shape, b }; dense W [units, inputs], conv W
// [filters, channels, k, k]), or null without `init`.
async function labInit() {
  const file = query.get('init');
  if (!file) return null;
  const step = await (await fetch(file)).json();
  const layers = [];
  for (let i = 0; i < step.parameters.length; i += 2) {
    const [w, b] = [step.parameters[i], step.parameters[i + 1]];
    layers.push({ w: Float32Array.from(w.values), shape: w.shape, b: Float32Array.from(b.values) });
  }
  return layers;
}

// A dense layer's weights as [inputs, units]; `labInput(i)` is the lab's index of input i (a
// flattened map is ordered by channel in the lab, by position in TF.js and ConvNetJS).
function inputsByUnits({ w, shape: [units, inputs] }, labInput = (i) => i) {
  const out = new Float32Array(units * inputs);
  for (let i = 0; i < inputs; i++) for (let u = 0; u < units; u++) out[i * units + u] = w[u * inputs + labInput(i)];
  return out;
}

// W2's 4 × 4 × 16 map flattened position-major (h, w, c) → the lab's channel-major index.
const positionMajorToLab = (i) => (i % 16) * 16 + Math.floor(i / 16);

// A convolution's weights from [filters, channels, k, k] to TF.js's [k, k, channels, filters].
function kernelHWIO({ w, shape: [filters, channels, k] }) {
  const out = new Float32Array(w.length);
  for (let f = 0; f < filters; f++) for (let c = 0; c < channels; c++) for (let y = 0; y < k; y++) for (let x = 0; x < k; x++) {
    out[((y * k + x) * channels + c) * filters + f] = w[((f * channels + c) * k + y) * k + x];
  }
  return out;
}

async function tfjs(data) {
  if (backend === 'wasm') tf.wasm.setWasmPaths('node_modules/@tensorflow/tfjs-backend-wasm/dist/');
  if (!(await tf.setBackend(backend))) throw new Error(`TensorFlow.js backend ${backend} is unavailable`);
  await tf.ready();
  const model = tf.sequential();
  if (workload === 'W1') {
    model.add(tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu' }));
    model.add(tf.layers.dense({ units: 10 }));
  } else {
    model.add(tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 8, kernelSize: 5, activation: 'relu' }));
    model.add(tf.layers.maxPooling2d({ poolSize: 2, strides: 2 }));
    model.add(tf.layers.conv2d({ filters: 16, kernelSize: 5, activation: 'relu' }));
    model.add(tf.layers.maxPooling2d({ poolSize: 2, strides: 2 }));
    model.add(tf.layers.flatten());
    model.add(tf.layers.dense({ units: 10 }));
  }
  const init = await labInit();
  if (init) {
    const params = model.layers.filter((l) => l.getWeights().length > 0);
    params.forEach((layer, i) => {
      const l = init[i];
      const kernel = l.shape.length === 4 ? kernelHWIO(l)
        : inputsByUnits(l, workload === 'W2' ? positionMajorToLab : undefined);
      layer.setWeights([tf.tensor(kernel, layer.getWeights()[0].shape), tf.tensor(l.b)]);
    });
  }
  const optimizer = tf.train.sgd(lr);
  const shape = workload === 'W1' ? [BATCH, 784] : [BATCH, 28, 28, 1];
  const batches = [];
  for (let s = 0; s < steps; s++) {
    const x = tf.tensor(data.pixels.subarray(s * BATCH * 784, (s + 1) * BATCH * 784), shape);
    const y = tf.oneHot(tf.tensor1d(Array.from(data.labels.subarray(s * BATCH, (s + 1) * BATCH)), 'int32'), 10);
    batches.push([x, y]);
  }
  const losses = [];
  const step = (s) => {
    const [x, y] = batches[s];
    losses.push(optimizer.minimize(() => tf.losses.softmaxCrossEntropy(y, model.predict(x)), true));
  };
  const t0 = performance.now();
  step(0);
  await losses[0].data(); // the first step includes compiling the kernels
  const t1 = performance.now();
  for (let s = 1; s < steps; s++) step(s);
  const values = await tf.stack(losses).data();
  const t2 = performance.now();
  return { t0, t1, t2, losses: Array.from(values), device: `${tf.getBackend()}` };
}

// A small seeded generator, so every jax-js run starts from the same weights.
function uniform(n, limit, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 4294967296 * 2 - 1) * limit;
  }
  return out;
}

// jax-js on the page's backend: WebGPU, or Wasm.
async function openJax() {
  const jax = await import('./node_modules/@jax-js/jax/dist/index.js');
  const device = backend === 'webgpu' ? 'webgpu' : 'wasm';
  const devices = await jax.init();
  if (!devices.includes(device)) throw new Error(`jax-js device ${device} is unavailable`);
  jax.defaultDevice(device);
  return { jax, device };
}

// Times `steps` jax-js steps, `step(s)` running step s and returning its loss (an array on the
// device), the first (tracing and compiling) apart. `sync=1` reads each step's loss back before
// the next (as a training loop with a live chart does); by default the losses queue on the
// device and are read once at the end, as the lab's chunks are.
async function timedJax(steps, device, step) {
  const sync = query.get('sync') === '1';
  const [pending, losses] = [[], []];
  const run = async (s) => {
    const l = step(s);
    if (sync || s === 0) losses.push((await l.data())[0]);
    else pending.push(l);
  };
  const t0 = performance.now();
  await run(0);
  const t1 = performance.now();
  for (let s = 1; s < steps; s++) await run(s);
  for (const l of pending) losses.push((await l.data())[0]);
  const t2 = performance.now();
  return { t0, t1, t2, losses, device: `jax-js ${device}${sync ? ' (synced)' : ''}` };
}

// jax-js 0.1 (npm @jax-js/jax): the whole SGD step — forward, loss, gradient, update — under one
// jit, on WebGPU or Wasm (multi-threaded where the page is cross-origin isolated).
async function jaxjs(data) {
  const { jax, device } = await openJax();
  const { numpy: np, nn, lax, jit, valueAndGrad, tree } = jax;
  const glorot = (shape, fanIn, fanOut, seed) =>
    np.array(uniform(shape.reduce((a, b) => a * b), Math.sqrt(6 / (fanIn + fanOut)), seed)).reshape(shape);
  const zeros = (shape) => np.zeros(shape);
  let params;
  let forward;
  const init = await labInit();
  // The lab's weights where given: dense ones as [inputs, units]; jax-js's convolutions and
  // flatten use the lab's own layouts (NCHW).
  const lab = (i, shape) => np.array(init[i].shape.length === 4 ? init[i].w : inputsByUnits(init[i])).reshape(shape);
  const labBias = (i, shape) => np.array(init[i].b).reshape(shape);
  if (workload === 'W1') {
    params = init
      ? { w1: lab(0, [784, 128]), b1: labBias(0, [128]), w2: lab(1, [128, 10]), b2: labBias(1, [10]) }
      : { w1: glorot([784, 128], 784, 128, 1), b1: zeros([128]), w2: glorot([128, 10], 128, 10, 2), b2: zeros([10]) };
    forward = (p, x) => np.matmul(nn.relu(np.matmul(x, p.w1).add(p.b1)), p.w2).add(p.b2);
  } else {
    const pool = (x, [n, c, h, w]) => x.reshape([n, c, h / 2, 2, w / 2, 2]).max([3, 5]);
    params = init ? {
      k1: lab(0, [8, 1, 5, 5]), c1: labBias(0, [1, 8, 1, 1]),
      k2: lab(1, [16, 8, 5, 5]), c2: labBias(1, [1, 16, 1, 1]),
      w: lab(2, [256, 10]), b: labBias(2, [10]),
    } : {
      k1: glorot([8, 1, 5, 5], 25, 200, 1), c1: zeros([1, 8, 1, 1]),
      k2: glorot([16, 8, 5, 5], 200, 400, 2), c2: zeros([1, 16, 1, 1]),
      w: glorot([256, 10], 256, 10, 3), b: zeros([10]),
    };
    forward = (p, x) => {
      const a = pool(nn.relu(lax.conv(x, p.k1, [1, 1], 'VALID').add(p.c1)), [BATCH, 8, 24, 24]);
      const b = pool(nn.relu(lax.conv(a, p.k2, [1, 1], 'VALID').add(p.c2)), [BATCH, 16, 8, 8]);
      return np.matmul(b.reshape([BATCH, 256]), p.w).add(p.b);
    };
  }
  const loss = (p, x, y) => nn.logSoftmax(forward(p, x)).mul(y).sum(-1).mean().neg();
  const step = jit((p, x, y) => {
    const [l, g] = valueAndGrad(loss)(tree.ref(p), x, y);
    return [tree.map((w, gw) => w.sub(gw.mul(lr)), p, g), l];
  });
  const shape = workload === 'W1' ? [BATCH, 784] : [BATCH, 1, 28, 28];
  const batches = [];
  for (let s = 0; s < steps; s++) {
    const onehot = new Float32Array(BATCH * 10);
    for (let i = 0; i < BATCH; i++) onehot[i * 10 + data.labels[s * BATCH + i]] = 1;
    batches.push([
      np.array(data.pixels.slice(s * BATCH * 784, (s + 1) * BATCH * 784)).reshape(shape),
      np.array(onehot).reshape([BATCH, 10]),
    ]);
  }
  await jax.blockUntilReady(batches);
  return timedJax(steps, device, (s) => {
    const [x, y] = batches[s];
    const [next, l] = step(params, x, y);
    params = next;
    return l;
  });
}

// T1, the attention lab's transformer, in jax-js: the file `init` (`lab export-step --workload
// T1`) holds the model's shape, its initial weights and every step's batch, which the lab's own
// run draws too. Token embedding (the table, also the tied head) plus learned positions; per
// block, optional pre-norm, causal attention (Q, K, V rows of W_qkv, 1/√head_dim), the output
// projection, a residual, then GELU (tanh form) MLP and a residual; the head at the last
// position; cross-entropy; Adam with bias correction (AdamW on the tensors the file marks).
async function jaxjsTransformer() {
  const { jax, device } = await openJax();
  const { numpy: np, nn, jit, valueAndGrad } = jax;
  const file = await (await fetch(query.get('init'))).json();
  const { config: c, optimizer: o } = file;
  const [B, T, D, H, V] = [c.batch, c.seq, c.width, c.heads, c.vocab];
  const all = Float32Array.from(file.params);
  const size = (shape) => shape.reduce((a, b) => a * b, 1);
  const tensor = (t) => np.array(all.slice(t.offset, t.offset + size(t.shape))).reshape(t.shape);
  let params = Object.fromEntries(file.tensors.map((t) => [t.name, tensor(t)]));
  let m = Object.fromEntries(file.tensors.map((t) => [t.name, np.zeros(t.shape)]));
  let v = Object.fromEntries(file.tensors.map((t) => [t.name, np.zeros(t.shape)]));
  const decayed = new Set(file.tensors.filter((t) => t.decayed).map((t) => t.name));
  const norm = (x, p, name) => nn.standardize(x, -1, { epsilon: 1e-5 }).mul(p[`${name}.g`]).add(p[`${name}.b`]);
  // W is [outputs, inputs], as the lab keeps it.
  const dense = (x, w) => np.matmul(x, w.transpose());
  const forward = (p, tokens) => {
    let x = np.matmul(tokens, p.table.ref).reshape([B, T, D]).add(p.pos);
    for (let i = 0; i < c.blocks; i++) {
      const k = (name) => p[`block${i}.${name}`];
      const a = c.layerNorm ? norm(x.ref, p, `block${i}.ln1`) : x.ref;
      const qkv = dense(a.reshape([B * T, D]), k('qkv')).reshape([B, T, 3, H, D / H]);
      const [q, kk, vv] = np.split(qkv, 3, 2).map((part) => part.reshape([B, T, H, D / H]));
      const o = nn.dotProductAttention(q, kk, vv, { isCausal: true }).reshape([B * T, D]);
      const h = x.add(dense(o, k('out')).reshape([B, T, D]));
      const u = c.layerNorm ? norm(h.ref, p, `block${i}.ln2`) : h.ref;
      const hidden = nn.gelu(dense(u.reshape([B * T, D]), k('w1')).add(k('b1')), { approximate: true });
      x = h.add(dense(hidden, k('w2')).add(k('b2')).reshape([B, T, D]));
    }
    if (c.layerNorm) x = norm(x, p, 'lnf');
    const [, last] = np.split(x.reshape([B, T * D]), [(T - 1) * D], 1);
    return dense(last, p.table);
  };
  const loss = (p, tokens, answers) => nn.logSoftmax(forward(p, tokens)).mul(answers).sum(-1).mean().neg();
  // One Adam step over every tensor; the bias corrections come in as arrays so that one trace
  // serves every step.
  const step = jit((p, m, v, tokens, answers, bc1, bc2) => {
    const keep = Object.fromEntries(Object.keys(p).map((name) => [name, p[name].ref]));
    const [l, g] = valueAndGrad(loss)(keep, tokens, answers);
    const [next, nm, nv] = [{}, {}, {}];
    for (const name of Object.keys(p)) {
      const gw = g[name];
      nm[name] = m[name].mul(o.beta1).add(gw.ref.mul(1 - o.beta1));
      nv[name] = v[name].mul(o.beta2).add(gw.ref.mul(gw).mul(1 - o.beta2));
      const update = nm[name].ref.div(bc1.ref).div(np.sqrt(nv[name].ref.div(bc2.ref)).add(o.eps)).mul(o.lr);
      const w = p[name];
      next[name] = decayed.has(name) && o.weightDecay > 0
        ? w.ref.sub(update).sub(w.mul(o.lr * o.weightDecay))
        : w.sub(update);
    }
    bc1.dispose();
    bc2.dispose();
    return [next, nm, nv, l];
  });
  const steps = Math.min(Number(query.get('steps')) || file.ids.length, file.ids.length);
  const batches = [];
  for (let s = 0; s < steps; s++) {
    const tokens = new Float32Array(B * T * V);
    file.ids[s].forEach((id, i) => { tokens[i * V + id] = 1; });
    const answers = new Float32Array(B * V);
    file.labels[s].forEach((y, i) => { answers[i * V + y] = 1; });
    batches.push([np.array(tokens).reshape([B * T, V]), np.array(answers).reshape([B, V])]);
  }
  await jax.blockUntilReady(batches);
  const r = await timedJax(steps, device, (s) => {
    const [tokens, answers] = batches[s];
    const bc = (beta) => np.array(1 - beta ** (s + 1));
    const [p, nm, nv, l] = step(params, m, v, tokens, answers, bc(o.beta1), bc(o.beta2));
    [params, m, v] = [p, nm, nv];
    return l;
  });
  return { ...r, steps, batch: B };
}

async function convnetjs_(data) {
  const layers = [{ type: 'input', out_sx: 28, out_sy: 28, out_depth: 1 }];
  if (workload === 'W1') {
    layers[0] = { type: 'input', out_sx: 1, out_sy: 1, out_depth: 784 };
    layers.push({ type: 'fc', num_neurons: 128, activation: 'relu' });
  } else {
    layers.push({ type: 'conv', sx: 5, filters: 8, stride: 1, pad: 0, activation: 'relu' });
    layers.push({ type: 'pool', sx: 2, stride: 2 });
    layers.push({ type: 'conv', sx: 5, filters: 16, stride: 1, pad: 0, activation: 'relu' });
    layers.push({ type: 'pool', sx: 2, stride: 2 });
  }
  layers.push({ type: 'softmax', num_classes: 10 });
  const net = new convnetjs.Net();
  net.makeLayers(layers);
  const init = await labInit();
  if (init) {
    // ConvNetJS keeps a filter per output, its values (y, x, channel) with the channel fastest.
    net.layers.filter((l) => l.layer_type === 'conv' || l.layer_type === 'fc').forEach((layer, i) => {
      const l = init[i];
      layer.filters.forEach((filter, f) => {
        if (l.shape.length === 4) {
          const [, channels, k] = l.shape;
          for (let y = 0; y < k; y++) for (let x = 0; x < k; x++) for (let c = 0; c < channels; c++) {
            filter.w[(y * k + x) * channels + c] = l.w[((f * channels + c) * k + y) * k + x];
          }
        } else {
          const inputs = l.shape[1];
          const labInput = workload === 'W2' ? positionMajorToLab : (j) => j;
          for (let j = 0; j < inputs; j++) filter.w[j] = l.w[f * inputs + labInput(j)];
        }
        layer.biases.w[f] = l.b[f];
      });
    });
  }
  const trainer = new convnetjs.Trainer(net, { method: 'sgd', learning_rate: lr, batch_size: BATCH, momentum: 0, l2_decay: 0 });
  const vols = [];
  for (let i = 0; i < steps * BATCH; i++) {
    const v = workload === 'W1' ? new convnetjs.Vol(1, 1, 784, 0) : new convnetjs.Vol(28, 28, 1, 0);
    v.w.set(data.pixels.subarray(i * 784, (i + 1) * 784));
    vols.push(v);
  }
  const losses = [];
  const step = (s) => {
    let sum = 0;
    for (let i = s * BATCH; i < (s + 1) * BATCH; i++) sum += trainer.train(vols[i], data.labels[i]).cost_loss;
    losses.push(sum / BATCH);
  };
  const t0 = performance.now();
  step(0);
  const t1 = performance.now();
  for (let s = 1; s < steps; s++) step(s);
  const t2 = performance.now();
  return { t0, t1, t2, losses, device: 'CPU (JavaScript)' };
}

(async () => {
  try {
    let r;
    if (workload === 'T1') {
      if (lib !== 'jaxjs') throw new Error('T1 is written for jax-js only');
      r = await jaxjsTransformer();
    } else {
      const data = await mnist();
      r = lib === 'convnetjs' ? await convnetjs_(data) : lib === 'jaxjs' ? await jaxjs(data) : await tfjs(data);
    }
    const [n, batch] = [r.steps ?? steps, r.batch ?? BATCH];
    window.__peerBench = {
      lib, backend: lib === 'convnetjs' ? 'js' : backend, sync: query.get('sync') === '1', device: r.device, workload, steps: n, batch,
      firstStepMs: r.t1 - r.t0,
      samplesPerSecSteady: ((n - 1) * batch) / ((r.t2 - r.t1) / 1000),
      samplesPerSecTotal: (n * batch) / ((r.t2 - r.t0) / 1000),
      finalLoss: r.losses[r.losses.length - 1],
      losses: r.losses,
    };
  } catch (e) {
    window.__peerBench = { lib, backend, workload, error: String(e && e.message || e) };
  }
  document.getElementById('out').textContent = JSON.stringify(window.__peerBench, null, 1);
})();
