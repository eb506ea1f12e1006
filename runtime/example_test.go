package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/paths"
	"github.com/spiritagents/spirit/runtime"
)

// The README's "Embedding: the Go API" example. It is compiled by go test, so
// the README's code cannot drift from the API; internal/embedtest runs it from
// another module.
func Example() {
	ctx := context.Background()
	dataDir := os.Getenv("SPIRIT_AGENT_DATA_DIR")
	dir := filepath.Join(dataDir, "keyring")
	args := json.RawMessage(`{"name":"Ada"}`)
	d := map[string]string{"text": "hello"}

	h, err := runtime.New(runtime.Options{Paths: paths.New(dataDir, paths.HostCLI),
		Secrets: runtime.NewSecrets(func() (runtime.SecretStore, error) {
			store, _, err := runtime.OpenSecretStore(runtime.SecretStoreConfig{Getenv: os.Getenv, FileDir: dir})
			return store, err
		})})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	tools, _ := h.Tools(ctx) // []runtime.Tool
	res, err := h.Call(ctx, runtime.CallRequest{Name: tools[0].Name, Arguments: args})
	var te *runtime.ToolError // the tool failed: report it to the model
	if errors.As(err, &te) {
		fmt.Println("tool failed:", te)
	}
	prompt, _ := h.SystemPrompt(ctx) // prompt.Block
	failures, _ := h.Emit(ctx, runtime.Event{Type: "onUserMessage", Detail: d})
	fmt.Println(res.Text, prompt.Block, len(failures))
}
