package org.alpsbridge.basil.codec;

/**
 * The bounds the reader enforces on untrusted documents. Defaults fit a 100,000-node BASIL 1.3 inventory
 * (about 270 MB, nesting depth 12) with a wide margin, while refusing the classic attacks early.
 *
 * @param maxDocumentBytes largest document accepted, in bytes (default 1 GiB)
 * @param maxDepth deepest element nesting (default 64; a 1.3 inventory is 12 deep)
 * @param maxAttributesPerElement most attributes on one element (default 64)
 * @param maxAttributeLength longest attribute value in characters (default 64 Ki)
 * @param maxTextLength longest text node in characters (default 4 Mi: a NodeParam listing 100,000 NIDs
 *     one by one is under 700 Ki)
 */
public record Limits(long maxDocumentBytes, int maxDepth, int maxAttributesPerElement, int maxAttributeLength, int maxTextLength) {

    public static final Limits DEFAULT = new Limits(1L << 30, 64, 64, 64 * 1024, 4 * 1024 * 1024);

    public Limits {
        if (maxDocumentBytes <= 0 || maxDepth <= 0 || maxAttributesPerElement <= 0 || maxAttributeLength <= 0 || maxTextLength <= 0) {
            throw new IllegalArgumentException("every limit must be positive: " + this);
        }
    }

    public Limits withMaxDocumentBytes(long bytes) {
        return new Limits(bytes, maxDepth, maxAttributesPerElement, maxAttributeLength, maxTextLength);
    }
}
