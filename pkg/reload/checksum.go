package reload

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Source says where a key's value lives: ConfigMap data (text) or binaryData; a Secret's
// data is binary.
type Source byte

// Sources of a key's value, as framed into a checksum.
const (
	FromData   Source = 'd'
	FromBinary Source = 'b'
	missingKey Source = 'm'
)

// Digest is the digest of one key's value: its source and sha256 of the value (for a
// Secret, HMAC-SHA256 keyed with the Secret's UID). It is what an Object keeps in place of
// the value, so a watcher's memory does not grow with config size and holds no Secret
// value.
type Digest struct {
	Source Source
	Sum    [sha256.Size]byte
}

// Object is a ConfigMap or Secret as a decision needs it: identity and one digest per key,
// never a value. Build it with ConfigMapObject, SecretObject or NewObject.
type Object struct {
	Kind Kind
	Name string
	// UID keys a Secret's HMAC; a recreated Secret (new UID) gets new checksums.
	UID types.UID
	// Digests holds one Digest per key of data and binaryData.
	Digests map[string]Digest
}

// NewObject digests data and binaryData (for a Secret: data nil, binaryData its data) into
// an Object. A key in both maps (the API server refuses that for a ConfigMap) keeps the
// binaryData value.
func NewObject(kind Kind, name string, uid types.UID, data map[string]string, binaryData map[string][]byte) Object {
	key := hmacKey(kind, uid)
	o := Object{Kind: kind, Name: name, UID: uid, Digests: make(map[string]Digest, len(data)+len(binaryData))}
	for k, v := range data {
		o.Digests[k] = Digest{Source: FromData, Sum: valueSum(key, []byte(v))}
	}
	for k, v := range binaryData {
		o.Digests[k] = Digest{Source: FromBinary, Sum: valueSum(key, v)}
	}
	return o
}

// ConfigMapObject is NewObject of cm's data and binaryData.
func ConfigMapObject(cm *corev1.ConfigMap) Object {
	return NewObject(ConfigMap, cm.Name, cm.UID, cm.Data, cm.BinaryData)
}

// SecretObject is NewObject of s's data (binary), HMAC keyed with s's UID. stringData is
// write-only and never stored by the API server, so it is not read.
func SecretObject(s *corev1.Secret) Object {
	return NewObject(Secret, s.Name, s.UID, nil, s.Data)
}

// hmacKey is the key a Secret's digests are keyed with (its UID); nil for a ConfigMap.
func hmacKey(kind Kind, uid types.UID) []byte {
	if kind == Secret {
		return []byte(uid)
	}
	return nil
}

// newHash is HMAC-SHA256 keyed with key, or plain sha256 for an empty key.
func newHash(key []byte) hash.Hash {
	if len(key) == 0 {
		return sha256.New()
	}
	return hmac.New(sha256.New, key)
}

func valueSum(key, v []byte) [sha256.Size]byte {
	h := newHash(key)
	h.Write(v)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Checksum returns the lowercase hex (64 characters) checksum of what a pod sees of one
// object through ref: for ref.Keys (or every key of data and binaryData when ref.AllKeys),
// in sorted order, the key, where its value lives and the value's digest. hmacKey nil or
// empty: sha256; otherwise HMAC-SHA256 keyed with hmacKey, which for a Secret must be its
// UID (the annotation then says nothing about a low-entropy value to a reader of the
// Deployment); a Secret's data goes in binaryData, data nil. It equals ref.Checksum of NewObject of the same data with that key.
//
// Framing is unambiguous: each key is an 8-byte big-endian length, the key, a source byte
// (data, binaryData, or missing) and, unless missing, the 32-byte digest of the value, so
// no two different (key, value) sets frame alike. A key ref does not name never changes
// the checksum; a key ref names that the object lacks is framed as missing, so adding it
// is a change. Pusher's Wave and Helm's checksum/config hash whole objects; XING's
// kubernetes-deployment-restart-controller hashes the whole data too: this scopes it.
func Checksum(ref Ref, data map[string]string, binaryData map[string][]byte, hmacKey []byte) string {
	o := Object{Kind: ref.Kind, Name: ref.Name, Digests: map[string]Digest{}}
	for k, v := range data {
		o.Digests[k] = Digest{Source: FromData, Sum: valueSum(hmacKey, []byte(v))}
	}
	for k, v := range binaryData {
		o.Digests[k] = Digest{Source: FromBinary, Sum: valueSum(hmacKey, v)}
	}
	return o.checksum(ref, hmacKey)
}

// Checksum returns ref's checksum over o's digests (see the function Checksum), keyed with
// o's UID for a Secret.
func (o Object) Checksum(ref Ref) string {
	return o.checksum(ref, hmacKey(o.Kind, o.UID))
}

func (o Object) checksum(ref Ref, key []byte) string {
	keys := slices.Compact(slices.Sorted(slices.Values(ref.Keys)))
	if ref.AllKeys {
		keys = slices.Sorted(maps.Keys(o.Digests))
	}
	h := newHash(key)
	var n [8]byte
	for _, k := range keys {
		binary.BigEndian.PutUint64(n[:], uint64(len(k)))
		h.Write(n[:])
		h.Write([]byte(k))
		d, ok := o.Digests[k]
		if !ok {
			h.Write([]byte{byte(missingKey)})
			continue
		}
		h.Write([]byte{byte(d.Source)})
		h.Write(d.Sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
