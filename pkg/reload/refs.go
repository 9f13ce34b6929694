package reload

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Kind is the kind of a configuration object a pod template references.
type Kind string

// The two kinds of configuration object a restart follows.
const (
	ConfigMap Kind = "ConfigMap"
	Secret    Kind = "Secret"
)

// Ref is one configuration object a pod of a template sees, with exactly the keys it sees.
// Namespace is implied: a pod references objects of its own namespace.
type Ref struct {
	// Kind is ConfigMap or Secret.
	Kind Kind
	// Name is the object's name.
	Name string
	// AllKeys: the pod sees every key of the object (envFrom, or a volume or projection
	// without items); Keys is then nil.
	AllKeys bool
	// Keys are the keys the pod sees when AllKeys is false: sorted, without duplicates.
	Keys []string
	// Optional is true when every reference to the object is `optional: true`: the pod
	// starts without it.
	Optional bool
}

// AnnotationKey is the ref's key in the checksums annotation: "configmap/NAME" or
// "secret/NAME".
func (r Ref) AnnotationKey() string {
	switch r.Kind {
	case ConfigMap:
		return "configmap/" + r.Name
	case Secret:
		return "secret/" + r.Name
	}
	return string(r.Kind) + "/" + r.Name
}

// String is "ConfigMap/NAME" with its keys ("[a b]" or "[*]") and "(optional)"; it holds
// names only, never a value.
func (r Ref) String() string {
	keys := fmt.Sprint(r.Keys)
	if r.AllKeys {
		keys = "[*]"
	}
	s := string(r.Kind) + "/" + r.Name + " " + keys
	if r.Optional {
		s += " (optional)"
	}
	return s
}

// References returns every ConfigMap and Secret a pod of tmpl sees, one Ref per object,
// ordered by kind (ConfigMap before Secret) then name; nil for none or a nil tmpl.
//
// Counted, from containers and initContainers: env[].valueFrom.configMapKeyRef and
// secretKeyRef (that key only), envFrom (every key; the prefix does not matter), and from
// volumes: configMap and secret (their items' keys, or every key) and projected.sources
// (the same, per source). Not counted: imagePullSecrets (the kubelet reads them to pull, a
// running pod never sees them), downwardAPI, serviceAccountToken and clusterTrustBundle
// sources, ephemeral containers. References to one object merge: the union of their keys
// (every key if any reference sees every key), optional only if every reference is.
//
// This is the set Stakater Reloader finds (its callbacks walk the same fields of a
// Deployment's pod spec) narrowed, per reference, to the keys the pod sees; XING's
// kubernetes-deployment-restart-controller hashes whole objects instead.
func References(tmpl *corev1.PodTemplateSpec) []Ref {
	if tmpl == nil {
		return nil
	}
	var c collector
	for _, ctr := range slices.Concat(tmpl.Spec.InitContainers, tmpl.Spec.Containers) {
		c.container(ctr)
	}
	for _, v := range tmpl.Spec.Volumes {
		c.volume(v.VolumeSource)
	}
	return c.refs()
}

// collector gathers references before merging them.
type collector struct{ all []Ref }

func (c *collector) add(kind Kind, name string, keys []string, allKeys bool, optional *bool) {
	if name == "" {
		return
	}
	c.all = append(c.all, Ref{Kind: kind, Name: name, Keys: keys, AllKeys: allKeys, Optional: ptr.Deref(optional, false)})
}

func (c *collector) container(ctr corev1.Container) {
	for _, e := range ctr.Env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			c.add(ConfigMap, r.Name, []string{r.Key}, false, r.Optional)
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			c.add(Secret, r.Name, []string{r.Key}, false, r.Optional)
		}
	}
	for _, e := range ctr.EnvFrom {
		if r := e.ConfigMapRef; r != nil {
			c.add(ConfigMap, r.Name, nil, true, r.Optional)
		}
		if r := e.SecretRef; r != nil {
			c.add(Secret, r.Name, nil, true, r.Optional)
		}
	}
}

func (c *collector) volume(v corev1.VolumeSource) {
	if s := v.ConfigMap; s != nil {
		c.add(ConfigMap, s.Name, itemKeys(s.Items), len(s.Items) == 0, s.Optional)
	}
	if s := v.Secret; s != nil {
		c.add(Secret, s.SecretName, itemKeys(s.Items), len(s.Items) == 0, s.Optional)
	}
	if v.Projected == nil {
		return
	}
	for _, src := range v.Projected.Sources {
		if s := src.ConfigMap; s != nil {
			c.add(ConfigMap, s.Name, itemKeys(s.Items), len(s.Items) == 0, s.Optional)
		}
		if s := src.Secret; s != nil {
			c.add(Secret, s.Name, itemKeys(s.Items), len(s.Items) == 0, s.Optional)
		}
	}
}

func itemKeys(items []corev1.KeyToPath) []string {
	var keys []string
	for _, it := range items {
		keys = append(keys, it.Key)
	}
	return keys
}

// refs merges the gathered references per object and orders them by kind, then name.
func (c *collector) refs() []Ref {
	type object struct {
		kind Kind
		name string
	}
	byObject := map[object]*Ref{}
	var out []*Ref
	for _, r := range c.all {
		id := object{r.Kind, r.Name}
		m, ok := byObject[id]
		if !ok {
			m = &Ref{Kind: r.Kind, Name: r.Name, Optional: true}
			byObject[id] = m
			out = append(out, m)
		}
		m.AllKeys = m.AllKeys || r.AllKeys
		m.Optional = m.Optional && r.Optional
		m.Keys = append(m.Keys, r.Keys...)
	}
	var refs []Ref
	for _, m := range out {
		if m.AllKeys {
			m.Keys = nil
		} else {
			slices.Sort(m.Keys)
			m.Keys = slices.Compact(m.Keys)
		}
		refs = append(refs, *m)
	}
	slices.SortFunc(refs, func(a, b Ref) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return refs
}
