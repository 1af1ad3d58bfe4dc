// W1 and W2 (see the README) in TensorFlow.js and ConvNetJS, measured like the lab's /bench page:
// the same 156 batches of 64 of the first 10,000 MNIST images in file order, pixels u8/255, plain
// SGD, samples/s over every step but the first. Each step's loss stays on the device until the end
// (one readback), as in the lab.
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

function convnetjs_(data) {
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
    const data = await mnist();
    const r = lib === 'convnetjs' ? convnetjs_(data) : await tfjs(data);
    window.__peerBench = {
      lib, backend: lib === 'convnetjs' ? 'js' : backend, device: r.device, workload, steps, batch: BATCH,
      firstStepMs: r.t1 - r.t0,
      samplesPerSecSteady: ((steps - 1) * BATCH) / ((r.t2 - r.t1) / 1000),
      samplesPerSecTotal: (steps * BATCH) / ((r.t2 - r.t0) / 1000),
      finalLoss: r.losses[r.losses.length - 1],
      losses: r.losses,
    };
  } catch (e) {
    window.__peerBench = { lib, backend, workload, error: String(e && e.message || e) };
  }
  document.getElementById('out').textContent = JSON.stringify(window.__peerBench, null, 1);
})();
