package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// manifestTime is the manifest's time in a checkpoint or an export, which
// every commit sets anew.
var manifestTime = regexp.MustCompile(`"manifest": ?\{\s*"time": ?"[^"]*"`)

// SameCheckpoint reports whether two checkpoints (or exports) written by
// state.Marshal hold the same state: they differ at most by the
// manifest's time and by the ciphertexts of secrets whose plaintexts,
// decrypted with c, are equal (every commit encrypts each secret afresh,
// with a new nonce). A store need not rewrite what did not change.
func SameCheckpoint(ctx context.Context, a, b []byte, c resource.Crypter) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ia, ib := manifestTime.FindIndex(a), manifestTime.FindIndex(b)
	if ia == nil || ib == nil {
		return ia == nil && ib == nil && samePlaintext(ctx, a, b, c)
	}
	return samePlaintext(ctx, a[:ia[0]], b[:ib[0]], c) && samePlaintext(ctx, a[ia[1]:], b[ib[1]:], c)
}

// samePlaintext compares a and b, JSON texts, byte by byte, except for
// whitespace between tokens (a checkpoint indented by an older runner, or
// by hand, holds the state its compact form holds) and where both hold a
// secret's ciphertext (the string value of a "ciphertext" key): those
// must decrypt to the same plaintext.
func samePlaintext(ctx context.Context, a, b []byte, c resource.Crypter) bool {
	i, j := 0, 0
	inString, escaped := false, false
	start := 0 // where the string being read began, in a (b's began at start+j-i)
	for {
		if !inString {
			i, j = skipSpace(a, i), skipSpace(b, j)
		}
		if i >= len(a) || j >= len(b) {
			break
		}
		if a[i] == b[j] {
			switch {
			case escaped:
				escaped = false
			case inString && a[i] == '\\':
				escaped = true
			case a[i] == '"':
				inString = !inString
				start = i
			}
			i, j = i+1, j+1
			continue
		}
		if !inString || c == nil || !secretCiphertext(a[:start]) {
			return false
		}
		sb := start + j - i
		ea, eb := stringEnd(a, start), stringEnd(b, sb)
		if ea < 0 || eb < 0 || !sameSecret(ctx, a[start:ea+1], b[sb:eb+1], c) {
			return false
		}
		i, j, inString, escaped = ea+1, eb+1, false, false
	}
	return i == len(a) && j == len(b)
}

// skipSpace returns the index of the first byte of text from k on that is
// not JSON whitespace.
func skipSpace(text []byte, k int) int {
	for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r') {
		k++
	}
	return k
}

// secretCiphertext reports whether text (a checkpoint up to an opening
// quote) ends where a secret's ciphertext begins: in an object whose
// signature key marks it a secret, after the key "ciphertext".
func secretCiphertext(text []byte) bool {
	for _, want := range []string{":", `"ciphertext"`, ",", `"` + state.SecretSig + `"`, ":", `"` + state.SigKey + `"`} {
		text = bytes.TrimRight(text, " \t\r\n")
		if !bytes.HasSuffix(text, []byte(want)) {
			return false
		}
		text = text[:len(text)-len(want)]
	}
	return true
}

// stringEnd returns the index of the quote that ends the JSON string
// beginning with the quote at start; -1 when it does not end.
func stringEnd(text []byte, start int) int {
	for k := start + 1; k < len(text); k++ {
		switch text[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}

// sameSecret decrypts two quoted ciphertexts and compares the plaintexts.
func sameSecret(ctx context.Context, qa, qb []byte, c resource.Crypter) bool {
	var ca, cb string
	if json.Unmarshal(qa, &ca) != nil || json.Unmarshal(qb, &cb) != nil {
		return false
	}
	pa, err := c.DecryptValue(ctx, ca)
	if err != nil {
		return false
	}
	pb, err := c.DecryptValue(ctx, cb)
	return err == nil && pa == pb
}
