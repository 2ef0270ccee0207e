import type { Agent } from "../../api/types";

type Props = {
  id: string;
  agents: Agent[];
  value: string;
  onChange: (id: string) => void;
  // own, when set, is the first choice, value "": the run's own settings.
  own?: string;
};

// AgentSelect picks one of this machine's agents (by id).
export function AgentSelect({ id, agents, value, onChange, own }: Props) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {own !== undefined && <option value="">{own}</option>}
      {own === undefined && value === "" && <option value="">Choose an agent…</option>}
      {agents.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name} ({a.provider}
          {a.model ? ` ${a.model}` : ""}, mode {a.mode})
        </option>
      ))}
    </select>
  );
}
