"""BoOQA-style benchmarks: the dataset builder, the metrics (AUC_norm) and the artefact audit."""
