//go:build race

package main

// raceDetector tells the tests that the race detector is on: the learning
// loop's scenario trains full networks, which -race makes ten times slower,
// so it skips them; .ci/run runs them again without it.
const raceDetector = true
