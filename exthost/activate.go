package exthost

import (
	"context"
	"slices"
)

// Activation is what an extension's activate returned, as the runner saw
// it: the members Spirit Agent recognises.
type Activation struct {
	// Instance says activate (or the module) gave an object with at least
	// one recognised member.
	Instance bool `json:"instance"`
	// Tools are the names in the returned tools object that are functions.
	Tools        []string `json:"tools"`
	InvokeTool   bool     `json:"invokeTool"`
	SystemPrompt bool     `json:"systemPrompt"`
	OnEvent      bool     `json:"onEvent"`
	Dispose      bool     `json:"dispose"`
	// ModuleTypeless says main is an ES module in a package without
	// "type": "module": Node has to parse it twice, and warns, at every
	// start.
	ModuleTypeless bool `json:"moduleTypeless"`
}

// Handles says whether a call of tool reaches a handler: invokeTool takes
// every tool, else tools[name] must be a function.
func (a *Activation) Handles(tool string) bool {
	return a.InvokeTool || slices.Contains(a.Tools, tool)
}

// Activate starts extension id (when it is not running) and reports what
// its activate returned. Errors are those of a first call: an
// *ExtensionError (load or activation failed, with its Location), a
// *TimeoutError, an *ExitError.
func (h *Host) Activate(ctx context.Context, id string) (*Activation, error) {
	ext, err := h.Extension(id)
	if err != nil {
		return nil, err
	}
	p, err := h.process(ctx, ext, nil)
	if err != nil {
		return nil, err
	}
	defer h.release(p)
	c := p.caps
	return &Activation{Instance: c.Instance, Tools: slices.Clone(c.Tools), InvokeTool: c.InvokeTool,
		SystemPrompt: c.SystemPrompt, OnEvent: c.OnEvent, Dispose: c.Dispose, ModuleTypeless: c.ModuleTypeless}, nil
}

// ExtensionPrompt returns the system prompt text of extension id, started
// when it is not running ("" when it contributes none).
func (h *Host) ExtensionPrompt(ctx context.Context, id string) (string, error) {
	ext, err := h.Extension(id)
	if err != nil {
		return "", err
	}
	return h.prompt(ctx, ext)
}
