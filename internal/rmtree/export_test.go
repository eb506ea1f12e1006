package rmtree

// ByNames is the fallback walk, for the tests.
var ByNames = byNames
