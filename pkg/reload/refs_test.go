package reload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func cmKeyEnv(name, key string, optional *bool) corev1.EnvVar {
	return corev1.EnvVar{Name: "E_" + key, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: optional}}}
}

func secretKeyEnv(name, key string, optional *bool) corev1.EnvVar {
	return corev1.EnvVar{Name: "S_" + key, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: optional}}}
}

func items(keys ...string) []corev1.KeyToPath {
	var out []corev1.KeyToPath
	for _, k := range keys {
		out = append(out, corev1.KeyToPath{Key: k, Path: "p/" + k})
	}
	return out
}

func TestReferences(t *testing.T) {
	lor := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []Ref
	}{
		{name: "no references", spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{{Name: "A", Value: "1"}}}}}},
		{
			name: "env configMapKeyRef and secretKeyRef see only that key",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{
				cmKeyEnv("app", "LOG_LEVEL", nil), secretKeyEnv("db", "password", nil)}}}},
			want: []Ref{{Kind: ConfigMap, Name: "app", Keys: []string{"LOG_LEVEL"}}, {Kind: Secret, Name: "db", Keys: []string{"password"}}},
		},
		{
			name: "envFrom sees every key, prefix irrelevant",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", EnvFrom: []corev1.EnvFromSource{
				{Prefix: "CFG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("app")}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: lor("db")}}}}}},
			want: []Ref{{Kind: ConfigMap, Name: "app", AllKeys: true}, {Kind: Secret, Name: "db", AllKeys: true}},
		},
		{
			name: "volumes without items see every key",
			spec: corev1.PodSpec{Volumes: []corev1.Volume{
				{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("files")}}},
				{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}}}},
			want: []Ref{{Kind: ConfigMap, Name: "files", AllKeys: true}, {Kind: Secret, Name: "tls", AllKeys: true}},
		},
		{
			name: "volume items see the listed keys, sorted",
			spec: corev1.PodSpec{Volumes: []corev1.Volume{
				{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("files"), Items: items("z.conf", "a.conf")}}},
				{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls", Items: items("tls.key")}}}}},
			want: []Ref{{Kind: ConfigMap, Name: "files", Keys: []string{"a.conf", "z.conf"}}, {Kind: Secret, Name: "tls", Keys: []string{"tls.key"}}},
		},
		{
			name: "projected sources, with and without items; other sources ignored",
			spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: lor("ca"), Items: items("ca.crt")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: lor("token")}},
				{DownwardAPI: &corev1.DownwardAPIProjection{}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}}}},
			want: []Ref{{Kind: ConfigMap, Name: "ca", Keys: []string{"ca.crt"}}, {Kind: Secret, Name: "token", AllKeys: true}},
		},
		{
			name: "initContainers count",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "migrate", Env: []corev1.EnvVar{secretKeyEnv("db", "url", nil)}}}},
			want: []Ref{{Kind: Secret, Name: "db", Keys: []string{"url"}}},
		},
		{
			name: "optional recorded",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{
				cmKeyEnv("extra", "X", ptr.To(true)), secretKeyEnv("db", "password", ptr.To(false))}}}},
			want: []Ref{{Kind: ConfigMap, Name: "extra", Keys: []string{"X"}, Optional: true}, {Kind: Secret, Name: "db", Keys: []string{"password"}}},
		},
		{
			name: "imagePullSecrets ignored",
			spec: corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{lor("registry")}, Containers: []corev1.Container{{Name: "app"}}},
		},
		{
			name: "duplicates merge: union of keys, optional only if every reference is",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init", Env: []corev1.EnvVar{cmKeyEnv("app", "B", ptr.To(true))}}},
				Containers: []corev1.Container{
					{Name: "a", Env: []corev1.EnvVar{cmKeyEnv("app", "A", nil), cmKeyEnv("app", "B", ptr.To(true)), cmKeyEnv("opt", "K", ptr.To(true))}},
					{Name: "b", Env: []corev1.EnvVar{cmKeyEnv("opt", "J", ptr.To(true))}}},
				Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("app"), Items: items("A"), Optional: ptr.To(true)}}}},
			},
			want: []Ref{{Kind: ConfigMap, Name: "app", Keys: []string{"A", "B"}}, {Kind: ConfigMap, Name: "opt", Keys: []string{"J", "K"}, Optional: true}},
		},
		{
			name: "a key reference and envFrom of one object: every key",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
				Env:     []corev1.EnvVar{cmKeyEnv("app", "A", nil)},
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("app")}}}}}},
			want: []Ref{{Kind: ConfigMap, Name: "app", AllKeys: true}},
		},
		{
			name: "ordered by kind then name; a ConfigMap and a Secret of one name are two objects",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{
				secretKeyEnv("b", "k", nil), cmKeyEnv("z", "k", nil), secretKeyEnv("a", "k", nil), cmKeyEnv("b", "k", nil)}}}},
			want: []Ref{{Kind: ConfigMap, Name: "b", Keys: []string{"k"}}, {Kind: ConfigMap, Name: "z", Keys: []string{"k"}},
				{Kind: Secret, Name: "a", Keys: []string{"k"}}, {Kind: Secret, Name: "b", Keys: []string{"k"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := References(&corev1.PodTemplateSpec{Spec: tt.spec})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("References (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferencesNil(t *testing.T) {
	if got := References(nil); got != nil {
		t.Errorf("References(nil) = %v, want nil", got)
	}
}

func TestRefAnnotationKeyAndString(t *testing.T) {
	tests := []struct {
		name      string
		ref       Ref
		key, text string
	}{
		{"configmap with keys", Ref{Kind: ConfigMap, Name: "app", Keys: []string{"a", "b"}}, "configmap/app", "ConfigMap/app [a b]"},
		{"optional secret with every key", Ref{Kind: Secret, Name: "db", AllKeys: true, Optional: true}, "secret/db", "Secret/db [*] (optional)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ref.AnnotationKey(); got != tt.key {
				t.Errorf("AnnotationKey = %q, want %q", got, tt.key)
			}
			if got := tt.ref.String(); got != tt.text {
				t.Errorf("String = %q, want %q", got, tt.text)
			}
		})
	}
}
