// Package jsonpatch builds RFC 6902 JSON patch operations: the one definition of the
// operations rollplan's guarded writes send (pkg/kube sends them; pkg/drive and pkg/reload
// build them). It imports nothing but the standard library, so pure decision packages can
// build a patch without linking a client.
package jsonpatch

import "strings"

// Op is one RFC 6902 JSON patch operation, marshalled as {"op","path","value"}.
type Op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Test, Replace, Add and Remove build operations. A test of a value that is JSON null is not
// possible with omitempty; rollplan never needs one.
func Test(path string, v any) Op    { return Op{Op: "test", Path: path, Value: v} }
func Replace(path string, v any) Op { return Op{Op: "replace", Path: path, Value: v} }
func Add(path string, v any) Op     { return Op{Op: "add", Path: path, Value: v} }
func Remove(path string) Op         { return Op{Op: "remove", Path: path} }

// EscapeToken escapes one JSON pointer reference token (RFC 6901: "~" is "~0", "/" is "~1"):
// "deployment.kubernetes.io/revision" is "deployment.kubernetes.io~1revision".
func EscapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// AnnotationPath is the JSON pointer of the object's annotation key:
// "/metadata/annotations/deployment.kubernetes.io~1revision".
func AnnotationPath(key string) string {
	return "/metadata/annotations/" + EscapeToken(key)
}
