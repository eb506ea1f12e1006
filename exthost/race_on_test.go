//go:build race

package exthost

// raceEnabled says the race detector runs (it multiplies memory use).
const raceEnabled = true
