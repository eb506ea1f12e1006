//go:build !race

package runtime

// raceEnabled says the race detector runs (it multiplies memory use).
const raceEnabled = false
