package cli

import (
	"fmt"

	"github.com/spiritagents/spirit/internal/termtext"
)

// itemResultJSON is the outcome of one argument of a command given several
// (`install A B --json`). Its field names are a public contract.
type itemResultJSON struct {
	Arg    string `json:"arg"`
	Status string `json:"status"` // ok | failed
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	Hint   string `json:"hint,omitempty"`
}

// forEachArg runs step once for every argument, each its own atomic step.
// step prints its human output itself and returns its --json value. With
// one argument the command behaves as if it took one: its error is the
// command's and its --json value is the output. With several, a failure
// is reported on its own lines (`Error: ARG: …`) and the next argument
// runs; the output under --json is {"results": [...]}, and the command
// exits 1 when any failed.
func forEachArg(f *Factory, args []string, step func(arg string) (any, error)) error {
	if len(args) == 1 {
		v, err := step(args[0])
		if err != nil {
			return err
		}
		if f.Global.JSON && v != nil {
			return writeJSON(f.IO.Out, v)
		}
		return nil
	}
	results := make([]itemResultJSON, 0, len(args))
	failed := 0
	for _, arg := range args {
		v, err := step(arg)
		r := itemResultJSON{Arg: arg, Status: "ok", Result: v}
		if err != nil {
			failed++
			r.Status, r.Error, r.Hint, r.Result = "failed", err.Error(), hintOf(err), nil
			if !f.Global.JSON {
				termtext.Fprintf(f.IO.ErrOut, "Error: %s: %s\n", arg, termtext.Multiline(err.Error()))
				if r.Hint != "" {
					termtext.Fprintf(f.IO.ErrOut, "Hint: %s\n", r.Hint)
				}
			}
		}
		results = append(results, r)
	}
	if f.Global.JSON {
		if err := writeJSON(f.IO.Out, struct {
			Results []itemResultJSON `json:"results"`
		}{results}); err != nil {
			return err
		}
	}
	if failed > 0 {
		if !f.Global.JSON {
			fmt.Fprintf(f.IO.ErrOut, "%d of %d failed.\n", failed, len(args))
		}
		return &exitError{code: ExitFailure}
	}
	return nil
}
