import type { ReactNode } from 'react';

/** The centred card of the signed-out pages (sign-up, e-mail confirmation, set password). */
export function AuthCard({ children }: { children: ReactNode }) {
  return (
    <div className="login">
      <div className="login__card">
        <div className="login__brand">
          <span className="logo" aria-hidden="true">
            ▦
          </span>
          <span className="product-name">GPU Ledger</span>
        </div>
        {children}
      </div>
    </div>
  );
}
