package reload

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestChecksumKeyScoping(t *testing.T) {
	base := map[string]string{"seen": "1", "other": "x"}
	ref := Ref{Kind: ConfigMap, Name: "app", Keys: []string{"seen"}}
	tests := []struct {
		name    string
		ref     Ref
		data    map[string]string
		bin     map[string][]byte
		changes bool
	}{
		{name: "unchanged", ref: ref, data: map[string]string{"seen": "1", "other": "x"}},
		{name: "an unseen key changes: no change", ref: ref, data: map[string]string{"seen": "1", "other": "y"}},
		{name: "an unseen key is added: no change", ref: ref, data: map[string]string{"seen": "1", "other": "x", "new": "n"}},
		{name: "an unseen key is removed: no change", ref: ref, data: map[string]string{"seen": "1"}},
		{name: "a seen key changes", ref: ref, data: map[string]string{"seen": "2", "other": "x"}, changes: true},
		{name: "a seen key is removed", ref: ref, data: map[string]string{"other": "x"}, changes: true},
		{name: "a seen key moves to binaryData with the same bytes", ref: ref, data: map[string]string{"other": "x"}, bin: map[string][]byte{"seen": []byte("1")}, changes: true},
		{name: "every key seen: another key changes", ref: Ref{Kind: ConfigMap, Name: "app", AllKeys: true}, data: map[string]string{"seen": "1", "other": "y"}, changes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Checksum(tt.ref, base, nil, nil)
			got := Checksum(tt.ref, tt.data, tt.bin, nil)
			if changed := got != want; changed != tt.changes {
				t.Errorf("checksum changed = %v, want %v", changed, tt.changes)
			}
			if len(got) != 64 {
				t.Errorf("checksum %q: want 64 hex characters", got)
			}
		})
	}
}

func TestChecksumMissingKeyThenAdded(t *testing.T) {
	ref := Ref{Kind: ConfigMap, Name: "app", Keys: []string{"a", "b"}}
	without := Checksum(ref, map[string]string{"a": "1"}, nil, nil)
	withEmpty := Checksum(ref, map[string]string{"a": "1", "b": ""}, nil, nil)
	if without == withEmpty {
		t.Error("a named key that is missing checksums like the key with an empty value: adding it must be a change")
	}
	if none := Checksum(Ref{Kind: ConfigMap, Name: "app", Keys: []string{"a"}}, map[string]string{"a": "1"}, nil, nil); none == without {
		t.Error("a Ref naming a missing key b checksums like a Ref not naming b")
	}
}

func TestChecksumFramingCannotCollide(t *testing.T) {
	all := Ref{Kind: ConfigMap, Name: "app", AllKeys: true}
	tests := []struct {
		name string
		a, b map[string]string
	}{
		{"key/value boundary", map[string]string{"ab": "c"}, map[string]string{"a": "bc"}},
		{"two keys vs one", map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1b2"}},
		{"empty value vs no key", map[string]string{"a": ""}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if Checksum(all, tt.a, nil, nil) == Checksum(all, tt.b, nil, nil) {
				t.Errorf("%v and %v have one checksum", tt.a, tt.b)
			}
		})
	}
}

func TestChecksumStableAcrossMapOrderAndKeyOrder(t *testing.T) {
	data := map[string]string{}
	for _, k := range []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"} {
		data[k] = "v-" + k
	}
	ref := Ref{Kind: ConfigMap, Name: "app", AllKeys: true}
	first := Checksum(ref, data, map[string][]byte{"bin": {0, 1}}, nil)
	for i := range 50 {
		copied := map[string]string{}
		for k, v := range data {
			copied[k] = v
		}
		if got := Checksum(ref, copied, map[string][]byte{"bin": {0, 1}}, nil); got != first {
			t.Fatalf("run %d: checksum %s, first %s", i, got, first)
		}
	}
	a := Checksum(Ref{Kind: ConfigMap, Name: "app", Keys: []string{"k2", "k1"}}, data, nil, nil)
	b := Checksum(Ref{Kind: ConfigMap, Name: "app", Keys: []string{"k1", "k2", "k1"}}, data, nil, nil)
	if a != b {
		t.Errorf("the order or repetition of Ref.Keys changes the checksum: %s vs %s", a, b)
	}
}

func TestChecksumBinaryData(t *testing.T) {
	ref := Ref{Kind: ConfigMap, Name: "app", Keys: []string{"blob"}}
	one := Checksum(ref, nil, map[string][]byte{"blob": {0xff, 0x00}}, nil)
	two := Checksum(ref, nil, map[string][]byte{"blob": {0xff, 0x01}}, nil)
	if one == two {
		t.Error("a binaryData change does not change the checksum")
	}
	if again := Checksum(ref, nil, map[string][]byte{"blob": {0xff, 0x00}}, nil); again != one {
		t.Error("binaryData checksum not stable")
	}
}

func TestChecksumHMAC(t *testing.T) {
	ref := Ref{Kind: Secret, Name: "db", Keys: []string{"password"}}
	data := map[string][]byte{"password": []byte("hunter2")}
	plain := Checksum(ref, nil, data, nil)
	uid1 := Checksum(ref, nil, data, []byte("uid-1"))
	uid1Again := Checksum(ref, nil, data, []byte("uid-1"))
	uid2 := Checksum(ref, nil, data, []byte("uid-2"))
	if plain == uid1 {
		t.Error("HMAC checksum equals the plain sha256 checksum")
	}
	if uid1 != uid1Again {
		t.Error("HMAC checksum not stable for one UID")
	}
	if uid1 == uid2 {
		t.Error("HMAC checksum does not depend on the UID")
	}
	sum := sha256.Sum256([]byte("hunter2"))
	for _, c := range []string{uid1, uid2} {
		if c == hex.EncodeToString(sum[:]) {
			t.Error("checksum is the sha256 of the value")
		}
	}
}

func TestObjectChecksumMatchesChecksum(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", UID: "cm-uid"},
		Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {3}}}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", UID: "secret-uid"},
		Data: map[string][]byte{"password": []byte("hunter2"), "user": []byte("app")}}
	tests := []struct {
		name string
		obj  Object
		ref  Ref
		want string
	}{
		{"configmap keys", ConfigMapObject(cm), Ref{Kind: ConfigMap, Name: "app", Keys: []string{"a", "c"}}, Checksum(Ref{Keys: []string{"a", "c"}}, cm.Data, cm.BinaryData, nil)},
		{"configmap every key, not keyed by its UID", ConfigMapObject(cm), Ref{Kind: ConfigMap, Name: "app", AllKeys: true}, Checksum(Ref{AllKeys: true}, cm.Data, cm.BinaryData, nil)},
		{"secret keyed with its UID", SecretObject(s), Ref{Kind: Secret, Name: "db", Keys: []string{"password"}}, Checksum(Ref{Keys: []string{"password"}}, nil, s.Data, []byte("secret-uid"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.obj.Checksum(tt.ref); got != tt.want {
				t.Errorf("Object.Checksum = %s, want Checksum's %s", got, tt.want)
			}
		})
	}
}
