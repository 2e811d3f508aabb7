//go:build !race

package main

// raceDetector tells the tests that the race detector is on (see
// race_on_test.go).
const raceDetector = false
