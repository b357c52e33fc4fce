// Command runner stands up a whole environment made of many infrastructure
// projects, in dependency order, through an embedded deployment engine.
package main

import (
	"fmt"
	"os"
)

var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	fmt.Fprintln(os.Stderr, "runner: the command line is not wired yet")
	os.Exit(1)
}
