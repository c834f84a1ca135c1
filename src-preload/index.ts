// Preload bundle (issue 6).
