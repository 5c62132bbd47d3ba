// The usage line under the prompt box: context tokens used of the window, and the session's cost
// when the agent reports it. Pure: plain text for the line and a sentence for screen readers.
import type { Usage } from "./transcript";

export interface UsageView {
  /** "12,345 / 200,000 tokens (6%) · $0.0123" */
  text: string;
  /** "Context: 12,345 of 200,000 tokens used (6%). Cost: $0.0123" */
  label: string;
}

export function toUsageView(usage: Usage | null): UsageView | null {
  if (!usage) return null;
  const used = usage.used.toLocaleString("en-US");
  const size = usage.size.toLocaleString("en-US");
  const pct = usage.size > 0 ? ` (${Math.round((usage.used / usage.size) * 100)}%)` : "";
  const cost = usage.cost ? formatCost(usage.cost.amount, usage.cost.currency) : null;
  return {
    text: `${used} / ${size} tokens${pct}${cost === null ? "" : ` · ${cost}`}`,
    label: `Context: ${used} of ${size} tokens used${pct}.${cost === null ? "" : ` Cost: ${cost}`}`,
  };
}

/** "$0.0123", "$1.25", "€0.0040"; a code Intl does not know as "0.0123 XYZ". Small amounts keep 4 decimals. */
export function formatCost(amount: number, currency: string): string {
  const digits = Math.abs(amount) < 1 ? 4 : 2;
  try {
    return new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(amount);
  } catch {
    return `${amount.toFixed(digits)} ${currency}`;
  }
}
