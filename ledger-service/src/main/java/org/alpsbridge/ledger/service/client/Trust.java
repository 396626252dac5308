package org.alpsbridge.ledger.service.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.alpsbridge.ledger.LedgerException;

/**
 * Whom an https:// ledger service is trusted as: the CA in a PEM file (the commands' env
 * {@code ALPSBRIDGE_LEDGER_TLS_CA}), a site's own CA being the usual case; without one, the JDK's default
 * trust store.
 */
final class Trust {

    private Trust() {
    }

    static SSLContext of(Path caPem) {
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int n = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca" + n++, c);
            }
            if (n == 0) {
                throw new LedgerException("no certificate in " + caPem);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, tmf.getTrustManagers(), null);
            return tls;
        } catch (IOException | GeneralSecurityException e) {
            throw new LedgerException("cannot trust the ledger service's CA from " + caPem + ": " + e.getMessage());
        }
    }
}
