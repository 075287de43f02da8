package workshop_test

import "github.com/rdmatour/rdmatour/steps"

// lessonNamed is the lesson called name, nil for "" (the plain tour); an
// unknown name is a bug in the test.
func lessonNamed(name string) *steps.Lesson {
	if name == "" {
		return nil
	}
	l, err := steps.ParseLesson(name)
	if err != nil {
		panic(err)
	}
	return l
}
