"""Model providers behind one ``Model`` port; provider SDKs are imported lazily."""
