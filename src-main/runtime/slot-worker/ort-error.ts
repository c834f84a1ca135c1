/**
 * ONNX Runtime's own error text ("Non-zero status code returned while running Range node.
 * Name:'/model/rotary/Range' Status Message: … bfc_arena.cc:360 …") tells a user nothing and
 * leaks the library's insides; what a user reads is a sentence saying what failed, and the raw
 * text goes to the log for whoever debugs it. Text that is not ONNX Runtime's passes unchanged.
 */

// Markers only ONNX Runtime's messages carry: its status prefix, a node it ran, a C++ source line.
const ORT_TEXT =
  /\[ONNXRuntimeError\]|Non-zero status code returned while running|Status Message:|\b[\w/-]+\.(cc|cpp|h):\d+/;
const ALLOCATION =
  /bfc_arena|Failed to allocate|out of memory|bad_alloc|AllocateRawInternal|Available memory/i;
const NODE = /while running (\w+) node/;
const GRAPH = /Load model|Protobuf parsing failed|Invalid model|ModelProto|Type Error|ShapeInferenceError/i;

/** Whether `message` is ONNX Runtime's internal text. */
export function isOrtText(message: string): boolean {
  return ORT_TEXT.test(message);
}

/**
 * The sentence a user reads for an error message: ONNX Runtime's internal text translated (the
 * caller logs the raw text), anything else unchanged.
 */
export function plainOrtError(message: string): string {
  if (!isOrtText(message)) return message;
  const node = NODE.exec(message)?.[1];
  const step = node ? ` (its ${node} step)` : '';
  if (ALLOCATION.test(message))
    return `ONNX Runtime could not allocate the memory the model asked for${step}: the model needs more than this computer can give, or its files claim sizes it cannot hold (details in the log)`;
  if (node) return `ONNX Runtime failed while running the model${step} (details in the log)`;
  if (GRAPH.test(message))
    return "ONNX Runtime could not read the model's graph: the file is damaged or uses something it does not support (details in the log)";
  return 'ONNX Runtime failed inside (details in the log)';
}
