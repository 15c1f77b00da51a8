// Runs ONNX models in ONNX Runtime (npm package onnxruntime-node) on the sequences given as JSON
// on stdin: [{"model": path, "dtype": "float64" | "float32", "d": d, "sequences": [[[x_1], ...], ...]}, ...].
// Prints {"runtime": version, "outputs": [one [[[y_1], ...], ...] per model]}; a JavaScript number
// prints as the shortest decimal that reads back as the same double, so the outputs are exact.
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  const results = [];
  for (const job of JSON.parse(text)) results.push(await run(job));
  process.stdout.write(JSON.stringify({ runtime: require('onnxruntime-node/package.json').version, outputs: results }));
}

async function run(job) {
  const session = await ort.InferenceSession.create(job.model);
  const Array_ = job.dtype === 'float32' ? Float32Array : Float64Array;
  const outputs = [];
  for (const seq of job.sequences) {
    const x = new ort.Tensor(job.dtype, Array_.from(seq.flat()), [seq.length, job.d]);
    const y = (await session.run({ X: x })).Y;
    if (y.dims.length !== 2 || y.dims[0] !== seq.length || y.dims[1] !== job.d)
      throw new Error(`output shape [${y.dims}] for an input of ${seq.length} tokens in dimension ${job.d}`);
    const rows = [];
    for (let i = 0; i < seq.length; ++i) rows.push(Array.from(y.data.slice(i * job.d, (i + 1) * job.d)));
    outputs.push(rows);
  }
  return outputs;
}

main().catch((e) => {
  process.stderr.write(`run_onnx.js: ${e.stack || e}\n`);
  process.exit(1);
});
