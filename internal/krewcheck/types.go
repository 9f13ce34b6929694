package krewcheck

import (
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The constants of a Krew plugin manifest (sigs.k8s.io/krew pkg/constants).
const (
	// APIVersion is the only apiVersion Krew v0.4 accepts.
	APIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	// Kind is the only kind Krew accepts.
	Kind = "Plugin"
	// ManifestExtension is the extension of a manifest file in a Krew index.
	ManifestExtension = ".yaml"
)

// Plugin is a Krew plugin manifest; mirrors index.Plugin, sigs.k8s.io/krew pkg/index/types.go.
type Plugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PluginSpec `json:"spec"`
}

// PluginSpec is the plugin's specification; mirrors index.PluginSpec.
type PluginSpec struct {
	Version          string `json:"version,omitempty"`
	ShortDescription string `json:"shortDescription,omitempty"`
	Description      string `json:"description,omitempty"`
	Caveats          string `json:"caveats,omitempty"`
	Homepage         string `json:"homepage,omitempty"`

	Platforms []Platform `json:"platforms,omitempty"`
}

// Platform says how to install the plugin on the os/arch its selector matches; mirrors
// index.Platform.
type Platform struct {
	URI    string `json:"uri,omitempty"`
	Sha256 string `json:"sha256,omitempty"`

	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Files    []FileOperation       `json:"files"`

	// Bin is the path of the plugin executable, relative to the installation directory; Krew
	// links it (and nothing else) into $KREW_ROOT/bin.
	Bin string `json:"bin"`
}

// FileOperation copies files (From may be a glob) from the extracted archive to the
// installation directory; mirrors index.FileOperation.
type FileOperation struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Receipt is what Krew stores in $KREW_ROOT/receipts/<name>.yaml after an install; mirrors
// index.Receipt.
type Receipt struct {
	Plugin `json:",inline"`

	Status ReceiptStatus `json:"status"`
}

// ReceiptStatus records where an installed plugin came from.
type ReceiptStatus struct {
	Source SourceIndex `json:"source"`
}

// SourceIndex names the index a plugin was installed from ("default" for krew-index; Krew
// records "detached" for `krew install --manifest`).
type SourceIndex struct {
	Name string `json:"name"`
}

// DecodePlugin parses a manifest. It is stricter than Krew (which ignores unknown fields so that
// old clients can read new manifests): an unknown field here is an error, so a typo such as
// `sha265:` cannot slip through.
func DecodePlugin(b []byte) (Plugin, error) {
	var p Plugin
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		return Plugin{}, fmt.Errorf("decode plugin manifest: %w", err)
	}
	return p, nil
}

// ReadPluginFile reads and decodes the manifest at path.
func ReadPluginFile(path string) (Plugin, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Plugin{}, fmt.Errorf("read plugin manifest: %w", err)
	}
	p, err := DecodePlugin(b)
	if err != nil {
		return Plugin{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
