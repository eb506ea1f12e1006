package install

import "context"

// LockForTest takes in's lock and returns its release.
func LockForTest(in *Installer) (func(), error) { return in.lock(context.Background()) }
