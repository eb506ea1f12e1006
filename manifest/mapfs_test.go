package manifest

import (
	"testing/fstest"
)

type mapFS = fstest.MapFS
