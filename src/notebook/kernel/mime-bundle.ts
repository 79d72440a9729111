/**
 * A Jupyter MIME bundle: the `data` and `metadata` of one `display_data` message. Binary types
 * (image/png) are base64 text, as in an .ipynb file; JSON types (a Vega-Lite spec) are objects.
 */
export interface MimeBundle {
  data: Record<string, string | object>;
  metadata: Record<string, Record<string, unknown>>;
}

/** One output that shows MIME bundles and is updated in place (progress displays). */
export interface BundleDisplay {
  show(bundle: MimeBundle): void;
}
