package npm

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func sri(alg string, data []byte) string {
	var d []byte
	switch alg {
	case "sha512":
		s := sha512.Sum512(data)
		d = s[:]
	case "sha384":
		s := sha512.Sum384(data)
		d = s[:]
	case "sha256":
		s := sha256.Sum256(data)
		d = s[:]
	case "sha1":
		s := sha1.Sum(data)
		d = s[:]
	}
	return alg + "-" + base64.StdEncoding.EncodeToString(d)
}

func shasum(data []byte) string { s := sha1.Sum(data); return hex.EncodeToString(s[:]) }

func TestParseSRI(t *testing.T) {
	data := []byte("hello")
	tests := []struct {
		name    string
		in      string
		want    []string // algorithms, in order
		wantErr bool
	}{
		{name: "one", in: sri("sha512", data), want: []string{"sha512"}},
		{name: "several", in: sri("sha1", data) + "  " + sri("sha512", data) + "\n", want: []string{"sha1", "sha512"}},
		{name: "options", in: sri("sha256", data) + "?foo", want: []string{"sha256"}},
		{name: "unknown algorithm ignored", in: "md5-AAAA " + sri("sha384", data), want: []string{"sha384"}},
		{name: "empty", in: "", want: nil},
		{name: "bad base64", in: "sha512-!!!", wantErr: true},
		{name: "wrong length", in: "sha256-" + base64.StdEncoding.EncodeToString([]byte("short")), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSRI(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error for %q", tt.in)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("ParseSRI = %v, %v; want %v", got, err, tt.want)
			}
			for i, h := range got {
				if h.Algorithm != tt.want[i] {
					t.Errorf("hash %d = %s, want %s", i, h.Algorithm, tt.want[i])
				}
			}
		})
	}
}

func TestVerify(t *testing.T) {
	data := []byte("tarball bytes")
	other := []byte("tampered bytes")
	tests := []struct {
		name      string
		integrity string
		shasum    string
		allowSHA1 bool
		wantErr   error
	}{
		{name: "sha512", integrity: sri("sha512", data)},
		{name: "sha512 and shasum", integrity: sri("sha512", data), shasum: shasum(data)},
		{name: "strongest must match", integrity: sri("sha1", data) + " " + sri("sha512", other), wantErr: ErrIntegrity},
		{name: "weaker mismatch ignored", integrity: sri("sha256", other) + " " + sri("sha512", data)},
		{name: "any of strongest", integrity: sri("sha512", other) + " " + sri("sha512", data)},
		{name: "sha256 only", integrity: sri("sha256", data)},
		{name: "shasum mismatch", integrity: sri("sha512", data), shasum: shasum(other), wantErr: ErrIntegrity},
		{name: "sha512 mismatch", integrity: sri("sha512", other), wantErr: ErrIntegrity},
		{name: "sha1 only refused", integrity: sri("sha1", data), wantErr: ErrWeakIntegrity},
		{name: "shasum only refused", shasum: shasum(data), wantErr: ErrWeakIntegrity},
		{name: "sha1 allowed", integrity: sri("sha1", data), allowSHA1: true},
		{name: "shasum allowed", shasum: shasum(data), allowSHA1: true},
		{name: "shasum allowed mismatch", shasum: shasum(other), allowSHA1: true, wantErr: ErrIntegrity},
		{name: "nothing", allowSHA1: true, wantErr: ErrWeakIntegrity},
		{name: "bad shasum", integrity: sri("sha512", data), shasum: "zz", wantErr: ErrBadPackument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Resolved{Name: "p", Version: "1.0.0", Integrity: tt.integrity, Shasum: tt.shasum}
			e, err := expect(r, tt.allowSHA1)
			if err == nil {
				h := newHashers(e)
				h.Write(data)
				var got string
				got, err = h.check(r.Name, r.Version)
				if err == nil && got != sri("sha512", data) {
					t.Errorf("integrity = %s, want the sha512 of the bytes", got)
				}
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func FuzzParseSRI(f *testing.F) {
	f.Add(sri("sha512", []byte("x")) + " " + sri("sha1", []byte("x")) + "?opt")
	f.Add("sha256-")
	f.Fuzz(func(t *testing.T, s string) {
		hs, err := ParseSRI(s)
		if err != nil {
			return
		}
		for _, h := range hs {
			again, err := ParseSRI(h.String())
			if err != nil || len(again) != 1 || string(again[0].Digest) != string(h.Digest) {
				t.Fatalf("round trip of %s: %v %v", h, again, err)
			}
		}
		_ = Strongest(hs)
	})
}
