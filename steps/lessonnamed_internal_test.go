package steps

// lessonNamed is the lesson called name, nil for "" (the plain tour); an
// unknown name is a bug in the test.
func lessonNamed(name string) *Lesson {
	if name == "" {
		return nil
	}
	l, err := ParseLesson(name)
	if err != nil {
		panic(err)
	}
	return l
}
