package jsonpatch

import (
	"encoding/json"
	"testing"
)

func TestAnnotationPath(t *testing.T) {
	if got, want := AnnotationPath("deployment.kubernetes.io/revision"), "/metadata/annotations/deployment.kubernetes.io~1revision"; got != want {
		t.Errorf("AnnotationPath = %q, want %q", got, want)
	}
	if got, want := AnnotationPath("a~b"), "/metadata/annotations/a~0b"; got != want {
		t.Errorf("AnnotationPath = %q, want %q", got, want)
	}
}

func TestOpsMarshal(t *testing.T) {
	b, err := json.Marshal([]Op{Test("/spec/replicas", 3), Replace("/spec/replicas", 4), Add("/a", "x"), Remove("/b")})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":4},{"op":"add","path":"/a","value":"x"},{"op":"remove","path":"/b"}]`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
