//go:build race

package metrics

// raceDetector says the tests run with the race detector.
const raceDetector = true
