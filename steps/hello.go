package steps

import (
	"fmt"
	"strings"
)

// TourKind is which tour a side runs; a lesson names the tour it runs on
// (Lesson.Tour).
type TourKind uint8

// The tour kinds, in hello wire order (privdata.Hello.Tour). TourWrite
// is the zero value, so a hello without a tour field (or no hello at
// all) means the write tour.
const (
	TourWrite TourKind = iota
	TourRead
	TourAtomic
	TourUD
	tourKinds // number of known kinds
)

var tourKindNames = [tourKinds]string{"write", "read", "atomic", "ud"}

func (k TourKind) String() string {
	if k < tourKinds {
		return tourKindNames[k]
	}
	return fmt.Sprintf("tour#%d", uint8(k))
}

// ParseTourKind reads a --tour value; "" is the write tour.
func ParseTourKind(s string) (TourKind, error) {
	if s == "" {
		return TourWrite, nil
	}
	for k, name := range tourKindNames {
		if s == name {
			return TourKind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown tour %q: choose one of %s", s, strings.Join(tourKindNames[:], ", "))
}

// TourKinds lists the known tour kinds, in hello wire order.
func TourKinds() []TourKind {
	kinds := make([]TourKind, tourKinds)
	for k := range kinds {
		kinds[k] = TourKind(k)
	}
	return kinds
}
