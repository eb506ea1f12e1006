package npm

import (
	"maps"
	"slices"
	"strings"
)

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func replaceAll(s, old, new string) string { return strings.ReplaceAll(s, old, new) }
