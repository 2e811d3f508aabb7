// Package nn holds the small neural networks behind the "neural" and
// "humanlike" levels: a multilayer perceptron per rules key with three
// heads (best move, human move, value), its forward pass, its training and
// its weights file format.
//
// # Inputs
//
// A position is encoded relative to the side to move, over the
// rows*cols cells of the board in dense row-major order (index
// r*cols + c, not game.Cell's r*8 + c). There are three planes of one
// input per cell, one after the other: the side to move's marks, the
// opponent's marks, the empty cells; then one scalar that is 1 when X is to
// move (the X-O-X variant is not symmetric between the sides) and 0
// otherwise. That is 3*rows*cols + 1 inputs.
//
// # Network
//
// The body is Arch.Hidden dense layers with ReLU. Three heads read the last
// body layer: policy (one logit per cell: the move a strong player
// chooses), human (one logit per cell: the move the server's players
// choose) and value (one output through tanh: the expected result for the
// side to move, -1 for a loss to 1 for a win). Move probabilities are the
// softmax of the logits of the empty cells only. Outputs are indexed by
// game.Cell, so they line up with the rest of the engine.
//
// # Weights files
//
// Networks are stored as safetensors files (see Marshal): an 8-byte
// little-endian header length, a JSON header naming each float32 tensor,
// its shape and its byte range, and the raw little-endian data. The
// tensors are "body.<i>.weight" [out, in] and "body.<i>.bias" [out] for
// each body layer, and "policy", "human" and "value" weights and biases,
// whose rows follow the dense cell order. The header's metadata says which
// rules and architecture the file is for and carries a sha256 of the data,
// checked on reading.
//
// Evaluation is float32 and allocates nothing; training keeps float64
// weights and is deterministic for a seed whatever the number of workers.
package nn
