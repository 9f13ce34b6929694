package reload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func TestOptedIn(t *testing.T) {
	tests := []struct {
		name     string
		key, val string
		want     bool
	}{
		{"rollplan.dev/reload true", ReloadAnnotation, "true", true},
		{"rollplan.dev/reload false", ReloadAnnotation, "false", false},
		{"stakater auto true", StakaterAutoAnnotation, "true", true},
		{"stakater auto True is not exact", StakaterAutoAnnotation, "True", false},
		{"xing enabled", XingRestartAnnotation, "enabled", true},
		{"xing true is not its value", XingRestartAnnotation, "true", false},
		{"unrelated annotation", "example.com/reload", "true", false},
		{"no annotation", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := testutil.Deployment("web")
			if tt.key != "" {
				b = b.Annotation(tt.key, tt.val)
			}
			if got := OptedIn(b.Build()); got != tt.want {
				t.Errorf("OptedIn = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a template annotation does not opt in", func(t *testing.T) {
		if OptedIn(testutil.Deployment("web").TemplateAnnotation(ReloadAnnotation, "true").Build()) {
			t.Error("OptedIn true for a pod template annotation")
		}
	})
	t.Run("nil", func(t *testing.T) {
		if OptedIn(nil) {
			t.Error("OptedIn(nil) = true")
		}
	})
}

func TestEncodeChecksums(t *testing.T) {
	got := EncodeChecksums(map[string]string{"secret/db": "b2", "configmap/z": "z1", "configmap/app": "a1"})
	want := `{"configmap/app":"a1","configmap/z":"z1","secret/db":"b2"}`
	if got != want {
		t.Errorf("EncodeChecksums = %s, want %s", got, want)
	}
	if got := EncodeChecksums(nil); got != "{}" {
		t.Errorf("EncodeChecksums(nil) = %s, want {}", got)
	}
}

func TestDecodeChecksums(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    map[string]string
		wantErr string
	}{
		{name: "round trip", value: `{"configmap/app":"a1","secret/db":"b2"}`, want: map[string]string{"configmap/app": "a1", "secret/db": "b2"}},
		{name: "empty object", value: `{}`, want: map[string]string{}},
		{name: "not JSON", value: `configmap/app=a1`, wantErr: "not a JSON object of strings"},
		{name: "empty string", value: ``, wantErr: "not a JSON object of strings"},
		{name: "a number value", value: `{"configmap/app":1}`, wantErr: "not a JSON object of strings"},
		{name: "an array", value: `["configmap/app"]`, wantErr: "not a JSON object of strings"},
		{name: "null", value: `null`, wantErr: "null, want a JSON object"},
		{name: "unknown kind", value: `{"deployment/app":"x"}`, wantErr: `key "deployment/app" is not configmap/NAME or secret/NAME`},
		{name: "no name", value: `{"secret/":"x"}`, wantErr: `key "secret/" is not`},
		{name: "empty checksum", value: `{"secret/db":""}`, wantErr: `key "secret/db" has an empty checksum`},
		{name: "first bad key in sorted order", value: `{"z/b":"x","a/b":"x"}`, wantErr: `key "a/b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeChecksums(tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), ChecksumsAnnotation) {
					t.Fatalf("error = %v, want one naming %s and containing %q", err, ChecksumsAnnotation, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeChecksums (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeChecksums: DecodeChecksums never panics, every error names the annotation, and
// what it accepts encodes and decodes back to itself.
func FuzzDecodeChecksums(f *testing.F) {
	for _, seed := range []string{
		`{"configmap/app":"a1","secret/db":"b2"}`, `{}`, ``, `null`, `[]`, `{"secret/":"x"}`,
		`{"configmap/a/b":"x"}`, `{"configmap/app":""}`, `{"configmap/app":"\u0000"}`, `{"x":1}`,
		`{"configmap/app":"a","configmap/app":"b"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		m, err := DecodeChecksums(value)
		if err != nil {
			if !strings.Contains(err.Error(), ChecksumsAnnotation) {
				t.Fatalf("error %q does not name %s", err, ChecksumsAnnotation)
			}
			return
		}
		again, err := DecodeChecksums(EncodeChecksums(m))
		if err != nil {
			t.Fatalf("re-decoding the encoding of %v: %v", m, err)
		}
		if diff := cmp.Diff(m, again); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}
