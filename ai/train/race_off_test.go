//go:build !race

package train

// raceDetector tells the tests that the race detector is on: it makes
// training about fifty times slower.
const raceDetector = false
