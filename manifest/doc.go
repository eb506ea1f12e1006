// Package manifest parses and validates the package.json of a Spirit Agent
// extension and its spiritExtension block.
//
// It applies every rule of the reference implementation, with the
// reference's message texts, but reports all problems at once, each with a
// JSON pointer and a severity, instead of stopping at the first. Structure
// is checked by an embedded JSON Schema (spirit-extension.schema.json,
// draft 2020-12, compiled once); the rules a schema cannot say (capability
// pairing, safe relative paths, the CLI hooks file, defaults by type,
// duplicate keys, files that the manifest names) are Go code.
//
// Beyond the reference, these are errors: duplicate tool names, setting
// keys and secret keys; a select setting without options or with a default
// outside them; an inputSchema or outputSchema that is not an object JSON
// Schema; a file named by main, icon, a css path or the hooks path that the
// package lacks; such a path escaping the package through a symlink. These
// are warnings: a version that is not strict semver; tools without both
// tool-definitions and tool-execution; system-prompt or activationEvents
// without main; secretSlots without secret-storage. A UTF-8 byte order mark
// is accepted with a warning.
package manifest
