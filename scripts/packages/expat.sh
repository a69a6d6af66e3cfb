# expat: upstream keeps the library (and its configure) in expat/.
subdir=expat
