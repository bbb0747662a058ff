"""Performance benchmarks that print figures (not tests); `bench.synthetic` holds their shared data generators."""
