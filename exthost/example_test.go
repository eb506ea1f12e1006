package exthost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/paths"
)

// The "Embedding: the Go API" example of docs/mcp.md. It is compiled by go test, so
// the documented code cannot drift from the API; internal/embedtest runs it from
// another module.
func Example() {
	ctx := context.Background()
	dataDir := os.Getenv("SPIRIT_AGENT_DATA_DIR")
	dir := filepath.Join(dataDir, "keyring")
	args := json.RawMessage(`{"name":"Ada"}`)
	d := map[string]string{"text": "hello"}

	h, err := exthost.New(exthost.Options{Paths: paths.New(dataDir, paths.HostCLI),
		Secrets: exthost.NewSecrets(func() (exthost.SecretStore, error) {
			store, _, err := exthost.OpenSecretStore(exthost.SecretStoreConfig{Getenv: os.Getenv, FileDir: dir})
			return store, err
		})})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	tools, _ := h.Tools(ctx) // []exthost.Tool
	res, err := h.Call(ctx, exthost.CallRequest{Name: tools[0].Name, Arguments: args})
	var te *exthost.ToolError // the tool failed: report it to the model
	if errors.As(err, &te) {
		fmt.Println("tool failed:", te)
	}
	prompt, _ := h.SystemPrompt(ctx) // prompt.Block
	failures, _ := h.Emit(ctx, exthost.Event{Type: "onUserMessage", Detail: d})
	fmt.Println(res.Text, prompt.Block, len(failures))
}
