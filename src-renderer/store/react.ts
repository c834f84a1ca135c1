import { createContext, createElement, useContext } from 'react';
import type { ReactNode } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { Stores } from './create-stores';

const StoresContext = createContext<Stores | null>(null);

/** Makes the stores reachable by every component below it. */
export function StoresProvider(props: { stores: Stores; children: ReactNode }) {
  return createElement(StoresContext.Provider, { value: props.stores }, props.children);
}

/** The stores themselves (for actions and the bridge). */
export function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('useStores outside StoresProvider');
  return stores;
}

type StoreName = Exclude<keyof Stores, 'bridge' | 'dispose'>;
type StateOf<K extends StoreName> = Stores[K] extends StoreApi<infer S> ? S : never;

/** A slice of one store; the component re-renders only when the selected value changes. */
export function useSlice<K extends StoreName, T>(name: K, select: (state: StateOf<K>) => T): T {
  const store = useStores()[name] as unknown as StoreApi<StateOf<K>>;
  return useStore<StoreApi<StateOf<K>>, T>(store, select);
}
