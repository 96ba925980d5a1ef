package decode

import (
	"testing"
	"unsafe"
)

// The Plain states check UTF-8 or not as asked, have neither slabs, chunks
// nor a record, copy each value alone, and sweep 7-bit input into their own
// twins, which stay in plainStates (no copy of them set up elsewhere).
func TestPlain(t *testing.T) {
	for i, noUTF8 := range []bool{false, true} {
		st := Plain(noUTF8)
		if st != &plainStates[i].state || st.Checks() == noUTF8 || st.Views() {
			t.Fatalf("Plain(%v): checks %v, views %v", noUTF8, st.Checks(), st.Views())
		}
		if st.Slabs != nil || st.strs != nil || st.Record != nil {
			t.Fatalf("Plain(%v) has slabs, chunks or a record", noUTF8)
		}
		twin, _ := st.Sweep([]byte("7-bit"))
		if st.ascii != &plainStates[i].ascii || (twin != st.ascii && twin != st) {
			t.Fatalf("Plain(%v)'s 7-bit twin is not in plainStates", noUTF8)
		}
		if twin.Checks() || twin.Slabs != nil || twin.strs != nil || (twin != st && twin.ascii != twin) {
			t.Fatalf("Plain(%v)'s twin checks UTF-8 or has slabs or chunks", noUTF8)
		}
		in := []byte("label")
		a, b := st.String(in), twin.String(in)
		if a != "label" || b != "label" || unsafe.StringData(a) == unsafe.StringData(b) || unsafe.StringData(a) == &in[0] {
			t.Fatalf("Plain(%v): values share an array, or view the input", noUTF8)
		}
	}
	if err := Plain(false).CheckUTF8([]byte{0xff}, "f"); err == nil {
		t.Error("Plain(false) accepts invalid UTF-8")
	}
	if err := Plain(true).CheckUTF8([]byte{0xff}, "f"); err != nil {
		t.Errorf("Plain(true) checks UTF-8: %v", err)
	}
}
