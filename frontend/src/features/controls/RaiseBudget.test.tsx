import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseLimits, RaiseBudget } from "./RaiseBudget";

afterEach(cleanup);

describe("parseLimits", () => {
  const current = { max_steps: 3, max_cost_usd: 0.5, max_wall_time_ms: 600_000 };
  it("turns what was typed into limits, wall time from minutes", () => {
    expect(parseLimits(current, { max_steps: "5", max_cost_usd: "0.5", max_wall_time_ms: "12.5" })).toEqual({
      limits: { max_steps: 5, max_cost_usd: 0.5, max_wall_time_ms: 750_000 },
      errors: {},
    });
  });
  it("names each bad field", () => {
    const r = parseLimits(current, { max_steps: "2.5", max_cost_usd: "-1", max_wall_time_ms: "" });
    expect(r.limits).toBeUndefined();
    expect(r.errors).toEqual({
      max_steps: "Steps must be a whole number",
      max_cost_usd: "Cost must be a number above 0",
      max_wall_time_ms: "Give the new wall time limit",
    });
    expect(parseLimits(current, { max_steps: "2" }).errors.max_steps).toBe(
      "Steps cannot go below the budget of 3: raise it or leave it",
    );
    expect(parseLimits(current, { max_steps: "ten" }).errors.max_steps).toBe("Steps must be a number above 0");
  });
  it("refuses limits that raise nothing", () => {
    const r = parseLimits(current, { max_steps: "3", max_cost_usd: "0.5", max_wall_time_ms: "10" });
    expect(r.limits).toBeUndefined();
    expect(r.none).toBe("Raise at least one budget above its limit to go on");
  });
});

describe("RaiseBudget", () => {
  it("asks for the new limits, prefilled with twice the old, and sends what the person typed", async () => {
    const onRaise = vi.fn(async () => ({ status: "accepted" }));
    render(<RaiseBudget limits={{ max_steps: 3, max_tokens: 1000 }} disabled={false} title="" onRaise={onRaise} />);
    fireEvent.click(screen.getByRole("button", { name: "Raise budget and continue" }));
    const steps = screen.getByLabelText("New steps limit") as HTMLInputElement;
    expect(steps.value).toBe("6");
    expect((screen.getByLabelText("New tokens limit") as HTMLInputElement).value).toBe("2000");
    // Budgets the run does not have are not asked for.
    expect(screen.queryByLabelText("New cost limit")).toBeNull();

    fireEvent.change(steps, { target: { value: "1" } });
    fireEvent.click(screen.getByRole("button", { name: "Continue with these limits" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Steps cannot go below the budget of 3: raise it or leave it");
    expect(steps.getAttribute("aria-invalid")).toBe("true");
    expect(onRaise).not.toHaveBeenCalled();

    fireEvent.change(steps, { target: { value: "20" } });
    fireEvent.click(screen.getByRole("button", { name: "Continue with these limits" }));
    await waitFor(() => expect(onRaise).toHaveBeenCalledWith({ max_steps: 20, max_tokens: 2000 }));
    // Accepted, the form closes.
    await waitFor(() => expect(screen.getByRole("button", { name: "Raise budget and continue" })).toBeTruthy());
  });

  it("stays open when the command is not accepted", async () => {
    const onRaise = vi.fn(async () => undefined);
    render(<RaiseBudget limits={{ max_steps: 3 }} disabled={false} title="" onRaise={onRaise} />);
    fireEvent.click(screen.getByRole("button", { name: "Raise budget and continue" }));
    fireEvent.click(screen.getByRole("button", { name: "Continue with these limits" }));
    await waitFor(() => expect(onRaise).toHaveBeenCalledWith({ max_steps: 6 }));
    expect(screen.getByLabelText("New steps limit")).toBeTruthy();
  });
});
