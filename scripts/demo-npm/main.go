// Command demo-npm serves the npm packuments stored under a folder (as
// <name>.json) on 127.0.0.1, for `make demo`: it prints the registry URL
// and serves until it is killed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spiritagents/spirit/registry/registrytest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: demo-npm DIR")
		os.Exit(2)
	}
	s, err := registrytest.NewDirServer(os.Args[1], 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
