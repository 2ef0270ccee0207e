import type { Api } from "../../api/client";
import type { AppStore } from "../../store/store";

// refreshAgents reads the agents and the server's info again into the store,
// after an agent or a provider setting changed: the new-run form's agent
// select, the demo labels and the top bar's provider all go by them (an
// agent set to auto resolves by the provider settings).
export async function refreshAgents(api: Api, store: AppStore): Promise<void> {
  const [info, agents] = await Promise.all([api.info(), api.agents()]);
  store.getState().setStatic(info, agents);
}
